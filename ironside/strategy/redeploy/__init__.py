"""The ``redeploy_server`` site action (teardown spec, issue 12).

One node, in the spec's order, each step recorded in the action's
progress with its status response (:mod:`..decommission.status`):

1. **decommission** it from Kubernetes and etcd
   (:class:`..decommission.sequence.Decommission`: drain, clear the
   design's labels, remove its etcd members, wait for etcd, shut the
   kubelet down);
2. **destroy** the server through its own hardware interfaces
   (:mod:`.destroy`): out of service (retired), undeployed, its local
   storage wiped by the ``management.wipe_local_storage`` clean step (all
   disks, or the OS disk only with ``preserve-local-storage``), powered
   off;
3. **remove** it from the Kubernetes cluster (409 Conflict unless drained,
   cordoned and unlabelled);
4. **redeploy** it to the target revision's design: back in service, then
   the design's plan restricted to this node (prepare, deploy steps,
   tasks), as deploy_site runs it; the revision is tagged as any site
   action tags it.

:mod:`.create` checks and queues the action; :mod:`.flow` runs it on a
conductor, resuming at the step it was in when a conductor takes it over.
"""
