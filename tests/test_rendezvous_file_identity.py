"""Identity of a file:// rendezvous (distributed/file_identity.py): the file
store refuses a rank of another job, a duplicate rank and a directory left by
an earlier run at once, and ranks that disagree about WORLD_SIZE all fail at
once. Real processes share a real directory; each child is bounded far below
the ranks' own timeout, so "at once" means "did not wait out its timeout"."""
import os
import subprocess
import sys
import time

import pytest

import monoflow.distributed as dist
from test_rendezvous_identity import BOUND_S, JOIN, child_env, finish, wait_for_files

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without Gloo")

# The same program as the TCP tests, joined through the directory MF_DIR.
FILE_JOIN = JOIN.replace('dist.init_process_group("gloo", timeout=float(os.environ["MF_TIMEOUT"]))',
                         'dist.init_process_group("gloo", init_method="file://" + os.environ["MF_DIR"], '
                         'timeout=float(os.environ["MF_TIMEOUT"]))')


@pytest.fixture
def script(tmp_path):
    assert FILE_JOIN != JOIN
    path = tmp_path / "file_join.py"
    path.write_text(FILE_JOIN)
    return path


def spawn(script, directory, rank, world, **env):
    e = child_env(MF_DIR=directory, RANK=rank, WORLD_SIZE=world, **env)
    return subprocess.Popen([sys.executable, str(script)], env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def held_job(tmp_path, script, directory, **env):
    ready, hold = tmp_path / "ready", tmp_path / "hold"
    ready.mkdir()
    procs = [spawn(script, directory, r, 2, MF_READY_DIR=ready, MF_HOLD=hold, **env) for r in range(2)]
    wait_for_files([ready / "rank0", ready / "rank1"], procs)
    return procs, hold.touch


def test_a_job_forms_through_the_directory(tmp_path, script):
    procs = [spawn(script, tmp_path / "rdv", r, 2, MONOFLOW_JOB_ID="j1") for r in range(2)]
    for p in procs:
        rc, out = finish(p)
        assert rc == 0 and "JOINED 3.0" in out, out


@pytest.mark.parametrize("stranger_env, message", [
    ({"MONOFLOW_JOB_ID": "job-a"}, "duplicate rank 1 in job 'job-a'"),
    ({"MONOFLOW_JOB_ID": "job-b"}, "belongs to job 'job-a'"),
])
def test_duplicate_or_foreign_rank_is_refused_and_the_job_unharmed(tmp_path, script, stranger_env, message):
    directory = tmp_path / "rdv"
    procs, release = held_job(tmp_path, script, directory, MONOFLOW_JOB_ID="job-a")
    start = time.monotonic()
    rc, out = finish(spawn(script, directory, 1, 2, **stranger_env))
    assert time.monotonic() - start < BOUND_S
    assert rc == 1 and message in out, out
    release()
    for p in procs:
        rc, out = finish(p)
        assert rc == 0 and "AGAIN 3.0" in out, out  # the job's own all-reduce, untouched


def test_ranks_that_disagree_about_world_size_all_fail_at_once(tmp_path, script):
    directory = tmp_path / "rdv"
    procs = [spawn(script, directory, 0, 3), spawn(script, directory, 1, 2)]
    for p in procs:
        rc, out = finish(p)
        assert rc == 1 and "has WORLD_SIZE=2 but rank 0" in out and "WORLD_SIZE=3" in out, out


def test_a_directory_left_by_an_earlier_run_is_refused(tmp_path, script):
    directory = tmp_path / "rdv"
    first = [spawn(script, directory, r, 2) for r in range(2)]
    for p in first:
        assert finish(p)[0] == 0
    rc, out = finish(spawn(script, directory, 0, 2))
    assert rc == 1 and "holds an earlier run's keys" in out and "fresh directory" in out, out
    assert os.path.isdir(directory)
