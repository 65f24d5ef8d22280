"""Small training programs written the way well-known public PyTorch scripts
are written (issue 13). Each takes the framework module as a parameter, so
tests/test_user_programs.py runs the same source on PyTorch and on monoflow
(`import monoflow as torch`) with the same data and seeds."""
