"""The learning-rate schedule a training nn.Graph owns.

OneFlow compiles ``add_optimizer(opt, lr_sch=s)``'s schedule into the graph's
job: the graph's steps advance the job's own copy, and the Python objects the
user holds (``s`` and ``opt.param_groups[i]["lr"]``) stay where they were, so a
program can train with the graph and then replay the same schedule eagerly
with ``s`` from step 0 (OneFlow's test_graph_lr_scheduler does exactly this).

monoflow's graph steps the user's scheduler class, so it keeps the graph's
position in the schedule (the scheduler's state and the groups' learning rates)
beside it and swaps it in for each training call, then swaps the user's back.
"""
import copy


class GraphLRSchedule:
    def __init__(self, scheduler):
        self.scheduler = scheduler
        self._graph_state = None  # (scheduler state, group lrs) after the graph's last step; None: not started

    def _state(self):
        groups = self.scheduler.optimizer.param_groups
        return copy.deepcopy(self.scheduler.state_dict()), [g["lr"] for g in groups]

    def _load(self, state):
        scheduler_state, lrs = state
        self.scheduler.load_state_dict(copy.deepcopy(scheduler_state))
        for group, lr in zip(self.scheduler.optimizer.param_groups, lrs):
            group["lr"] = lr

    def __enter__(self):
        """The graph's learning rates are in the optimizer's groups until __exit__."""
        self._user_state = self._state()
        if self._graph_state is not None:
            self._load(self._graph_state)
        return self

    def step(self):
        self.scheduler.step()

    def __exit__(self, *exc):
        self._graph_state = self._state()
        self._load(self._user_state)
        del self._user_state
        return False
