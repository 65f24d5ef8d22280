"""torch.jit.annotations's ``BroadcastingList1/2/3``: TorchScript's annotation for "a value or a list of that many
values" (as in ``output_size: BroadcastingList2[int]``). Only the TorchScript compiler reads them, so
subscripting gives None, as in torch; monoflow has no TorchScript."""

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3"]


class _BroadcastingList:
    """``BroadcastingListN[T]`` in an annotation; evaluates to None."""

    def __init__(self, n):
        self._n = n

    def __getitem__(self, types):
        return None

    def __repr__(self):
        return f"BroadcastingList{self._n}"


BroadcastingList1, BroadcastingList2, BroadcastingList3 = (_BroadcastingList(n) for n in (1, 2, 3))
