"""Interfaces driven through ironic-python-agent, the agent that runs in
a ramdisk on the machine: the ``direct`` deploy, in-band clean and deploy
steps, the ``agent`` inspect and rescue interfaces."""
