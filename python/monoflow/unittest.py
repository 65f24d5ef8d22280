"""monoflow.unittest: OneFlow's public test helpers (``flow.unittest.TestCase``,
``flow.unittest.skip_unless_1n1d()`` ...), so that test files written for OneFlow
run unchanged.

A test declares the machine it needs as "n nodes, d devices per node"; it is
skipped unless the job matches. The job's shape comes from OneFlow's test
variables (``ONEFLOW_TEST_NODE_NUM``, ``ONEFLOW_TEST_DEVICE_NUM``) when set, and
otherwise from the launcher's environment through :mod:`monoflow.env`.
"""
import os
import unittest as _unittest

from monoflow import env as _env

__all__ = [
    "TestCase", "env", "num_nodes_required", "skip_unless", "skip_unless_1n1d",
    "skip_unless_1n2d", "skip_unless_1n4d", "skip_unless_2n1d", "skip_unless_2n2d",
    "skip_unless_2n4d",
]


class TestCase(_unittest.TestCase):
    """The base class of OneFlow's test cases: a plain :class:`unittest.TestCase`
    (monoflow needs no per-test session set-up).

    Example::

        >>> issubclass(flow.unittest.TestCase, __import__("unittest").TestCase)
        True
    """


def _positive_int_env(name):
    text = os.getenv(name)
    if text is None or text == "":
        return None
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"monoflow.unittest: environment variable {name} must be a positive integer, not {text!r}")
    return int(text)


class env:
    """Queries about the test job, as ``flow.unittest.env.<name>()``.

    Example::

        >>> flow.unittest.env.node_size(), flow.unittest.env.device_num()  # a plain process
        (1, 1)
    """

    @staticmethod
    def eager_execution_enabled():
        """monoflow always runs eagerly outside ``nn.Graph``: True."""
        return True

    @staticmethod
    def node_size():
        """Number of nodes of the job: ``ONEFLOW_TEST_NODE_NUM``, else the launcher's node count."""
        nodes = _positive_int_env("ONEFLOW_TEST_NODE_NUM")
        return nodes if nodes is not None else _env.get_node_size()

    @staticmethod
    def has_world_size():
        """Whether the job's size is known (a process group or ``ONEFLOW_TEST_WORLD_SIZE``)."""
        return _env.get_world_size() > 1 or _positive_int_env("ONEFLOW_TEST_WORLD_SIZE") is not None

    @staticmethod
    def world_size():
        """Number of processes of the job: ``ONEFLOW_TEST_WORLD_SIZE``, else the launcher's world size."""
        size = _positive_int_env("ONEFLOW_TEST_WORLD_SIZE")
        return size if size is not None else _env.get_world_size()

    @staticmethod
    def device_num():
        """Devices (processes) per node: ``ONEFLOW_TEST_DEVICE_NUM``, else world size / node count."""
        devices = _positive_int_env("ONEFLOW_TEST_DEVICE_NUM")
        if devices is not None:
            return devices
        return max(1, env.world_size() // max(1, env.node_size()))


def num_nodes_required(num_nodes):
    """Marks a test function with the number of nodes it needs (read by OneFlow's multi-node runners).

    Example::

        >>> @flow.unittest.num_nodes_required(2)
        ... def test_f(): pass
        >>> test_f.__oneflow_test_case_num_nodes_required__
        2
    """
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, int) or num_nodes < 1:
        raise TypeError(f"num_nodes_required(): argument 'num_nodes' must be a positive int, not {num_nodes!r}")

    def mark(func):
        func.__oneflow_test_case_num_nodes_required__ = num_nodes
        return func

    return mark


def skip_unless(num_nodes, num_devices):
    """A decorator that skips a test (function or class) unless the job has `num_nodes` nodes of
    `num_devices` devices each.

    Example::

        >>> flow.unittest.skip_unless(1, 1)(len) is len  # a plain process is 1 node, 1 device
        True
    """
    if env.node_size() == num_nodes and env.device_num() == num_devices:
        return lambda test: test
    return _unittest.skip(f"only runs when node_size is {num_nodes} and device_num is {num_devices}")


def skip_unless_1n1d():
    """Skips unless the job is 1 node with 1 device (see :func:`skip_unless`)."""
    return skip_unless(1, 1)


def skip_unless_1n2d():
    """Skips unless the job is 1 node with 2 devices (see :func:`skip_unless`)."""
    return skip_unless(1, 2)


def skip_unless_1n4d():
    """Skips unless the job is 1 node with 4 devices (see :func:`skip_unless`)."""
    return skip_unless(1, 4)


def skip_unless_2n1d():
    """Skips unless the job is 2 nodes with 1 device each (see :func:`skip_unless`)."""
    return skip_unless(2, 1)


def skip_unless_2n2d():
    """Skips unless the job is 2 nodes with 2 devices each (see :func:`skip_unless`)."""
    return skip_unless(2, 2)


def skip_unless_2n4d():
    """Skips unless the job is 2 nodes with 4 devices each (see :func:`skip_unless`)."""
    return skip_unless(2, 4)
