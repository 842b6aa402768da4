"""A Ray cluster on this machine only: a head node (no CPUs, so every point
runs on a worker node) and N worker nodes, each its own raylet, every server
bound to 127.0.0.1. Built with Ray's own multi-node test cluster
(ray.cluster_utils.Cluster); used by the CI test and the benchmark.

    with LocalCluster(workers=2) as cluster:
        nsim.sweep(spec, ray=cluster.address)
        cluster.kill_worker(0)   # SIGKILL of one node's raylet and workers
"""
import os

LOOPBACK_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",
    # Ray's switch for one-machine clusters: node addresses resolve to the
    # loopback address instead of the machine's network address, so the GCS,
    # raylets and workers listen on 127.0.0.1 only.
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
}


def use_loopback():
    os.environ.update(LOOPBACK_ENV)


class LocalCluster:
    def __init__(self, workers=2, object_store_bytes=80 * 1024 * 1024):
        use_loopback()
        from ray.cluster_utils import Cluster
        node = {"node_ip_address": "127.0.0.1", "object_store_memory": object_store_bytes}
        self.cluster = Cluster(initialize_head=True, head_node_args={
            **node, "num_cpus": 0, "include_dashboard": False})
        self.workers = [self.cluster.add_node(num_cpus=1, **node) for _ in range(workers)]
        self.cluster.wait_for_nodes()
        self.address = self.cluster.address

    def kill_worker(self, index):
        """Kills worker node `index` at once (no graceful shutdown)."""
        self.cluster.remove_node(self.workers[index], allow_graceful=False)

    def shutdown(self):
        self.cluster.shutdown()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
