"""``openstack site ...``: the site layer's OpenStackClient plugin."""
