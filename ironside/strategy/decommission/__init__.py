"""Decommissioning a node from the clusters it hosts (teardown spec).

What a ``redeploy_server`` action calls:

- :class:`.sequence.Decommission` ``(kubernetes, etcd, options).run(node,
  labels, done, record)``: the whole decommission, resumable; a peer the
  site does not have is None, and its steps are not applicable;
- :mod:`.clusters`: which peers a design revision declares (Kubernetes,
  etcd clusters), and whether this Ironside can reach its Kubernetes;
- :class:`.sequence.DecommissionOptions` ``.from_parameters(params)``:
  the spec's timeouts from the action's parameters (BadRequest first);
- :meth:`.k8s_client.KubernetesApi.from_kubeconfig` and its
  ``remove_from_cluster(node)``: the Kubernetes side, and deleting the
  node after the server is destroyed;
- :func:`..reader.etcd_clusters.load` and
  :class:`.etcd_gateway.EtcdGateway`: the EtcdClusters document and the
  etcd side;
- :mod:`.status`: the status responses every one of them answers with.
"""
