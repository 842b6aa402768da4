"""Runs points on this machine: in this process (jobs=1), or in a pool of
worker processes (one simulator per process). A worker that dies takes only
its unfinished points with it: the pool is rebuilt and they run again."""
import concurrent.futures
import multiprocessing
import signal

from nsim.sweeps import kernels

MAX_POOL_RESTARTS = 3


def work(task):
    """One point, in whichever process runs it: its outcome, never a point's exception."""
    try:
        return kernels.run(task)
    except kernels.PointError as e:
        return {"error": str(e)}


def run_serial(points, on_result):
    for point in points:
        on_result(point, work(point.task))


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle


def run_pool(points, jobs, on_result):
    pending = {p.point_id: p for p in points}
    for _ in range(MAX_POOL_RESTARTS + 1):
        if not pending:
            return
        _run_once(pending, jobs, on_result)
    for point in list(pending.values()):
        on_result(point, {"error": "its worker process died %d times" % (MAX_POOL_RESTARTS + 1)})


def _run_once(pending, jobs, on_result):
    """Runs what is pending until done or a worker dies (BrokenProcessPool)."""
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_sigint)
    try:
        futures = {pool.submit(work, p.task): p for p in pending.values()}
        for future in concurrent.futures.as_completed(futures):
            point = futures[future]
            try:
                outcome = future.result()
            except concurrent.futures.process.BrokenProcessPool:
                return
            del pending[point.point_id]
            on_result(point, outcome)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        for process in list((pool._processes or {}).values()):  # Ctrl-C or a broken pool: stop the rest now
            if process.is_alive():
                process.terminate()
