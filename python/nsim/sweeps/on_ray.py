"""Runs points on a Ray cluster: one Ray task per point, placed by Ray's
scheduler, retried by Ray when its worker or node dies (max_retries), its
summary returned through Ray's object store. Nothing here distributes work
itself. Connects on 127.0.0.1 only, without the dashboard or usage stats."""
import os
import socket

from nsim import _core
from nsim.sweeps import local, local_cluster

TASK_RETRIES = 5
CONNECT_TIMEOUT_S = 5  # Ray reruns a task whose worker or node died this many times


class RayMissing(RuntimeError):
    pass


def _ray():
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    try:
        import ray
    except ImportError:
        raise RayMissing("--ray needs Ray: pip install 'ray==2.60.0' (the `ray` extra of the nsim package; "
                         "tools/setup.sh installs it)") from None
    return ray


def _worker_env():
    """What a Ray worker needs to import this nsim and load this simulator build."""
    python_dir = os.path.join(_core.REPO_ROOT, "python")
    path = os.pathsep.join(filter(None, [python_dir, os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "NSIM_CORE_SO": _core.core().__file__,
            "NSIM_CONFIG_DIR": os.environ["NSIM_CONFIG_DIR"], "RAY_USAGE_STATS_ENABLED": "0"}


def _is_loopback(address):
    host = address.rsplit(":", 1)[0]
    return address in ("auto", "local") or host in ("127.0.0.1", "localhost")


def _check_reachable(address):
    """A head node's GCS port must accept a connection: Ray itself would retry for minutes."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise RayMissing("--ray %s: expected auto, local or HOST:PORT of a Ray head node" % address)
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise RayMissing("--ray %s: no Ray head node answers there (%s); start one with `ray start --head` "
                         "(docs/sweep.md)" % (address, e.strerror or e)) from None


def connect(address, jobs):
    """`address`: "auto" (the cluster running on this machine), "local" (a
    private one-machine cluster of `jobs` CPUs, started and stopped here) or
    HOST:PORT of a head node. A cluster on this machine is reached on
    127.0.0.1 only (local_cluster.py); a remote head node as Ray connects."""
    if _is_loopback(address):
        local_cluster.use_loopback()
    ray = _ray()
    options = {"runtime_env": {"env_vars": _worker_env()}, "log_to_driver": False, "configure_logging": False}
    if _is_loopback(address):
        options["_node_ip_address"] = "127.0.0.1"
    if address not in ("auto", "local"):
        _check_reachable(address)
    try:
        if address == "local":
            ray.init(num_cpus=jobs, include_dashboard=False, **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, ValueError, RuntimeError) as e:
        raise RayMissing("--ray %s: cannot connect to a Ray cluster: %s" % (address, e)) from None
    return ray


def run(points, address, jobs, on_result):
    ray = connect(address, jobs)
    refs = {}
    try:
        remote = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(local.work)
        refs.update({remote.remote(p.task): p for p in points})
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1, timeout=1.0)
            for ref in done:
                point = refs.pop(ref)
                try:
                    outcome = ray.get(ref)
                except ray.exceptions.RayError as e:  # retries used up: the point is not cached, a rerun retries it
                    outcome = {"error": "Ray could not run the point: %s" % str(e).splitlines()[0]}
                on_result(point, outcome)
    finally:
        for ref in refs:  # interrupted: nothing keeps running for this sweep
            ray.cancel(ref, force=True)
        ray.shutdown()
