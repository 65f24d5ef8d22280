"""monoflow's own bad-input fuzzer.

Every public function of ``monoflow`` and ``monoflow.nn.functional`` and every
``Tensor`` method (bound, and unbound with a foreign ``self``) is called with
hostile arguments: wrong types, None, huge and negative sizes/strides/indices,
every dtype, zero-size, 0-dim and non-contiguous tensors, NaN/inf.

A case is one line of Python source (so that a finding *is* its reproducer).
Cases run in long-lived worker processes (worker.py); a worker that dies is
restarted and the case it was running is counted as a crash, a case that runs
past its timeout is counted as a hang. The rule enforced: every call returns
or raises a clean Python exception (no C++ message), never a signal or a hang.

``python -m tests.fuzz --minutes N`` runs for a while; tests/test_fuzz.py runs
a bounded, derandomized campaign as part of the suite.
"""
