"""torch.stft (short-time Fourier transform) as frames (unfold) times the window, then fft.rfft / fft.fft;
values and gradients are those ops'."""
from monoflow import _C, _complex, _creation
from monoflow._op_names import names_its_errors
from monoflow._tensor import Tensor

__all__ = ["stft"]


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform (as ``torch.stft``): the DFT of each ``n_fft``-long frame of
    ``input``, frames ``hop_length`` apart, each multiplied by ``window``.

    Args:
        input (Tensor): ``(L,)`` or ``(B, L)``, real or complex.
        n_fft (int): the frame length (DFT size).
        hop_length (int, optional): the distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's length, at most ``n_fft`` (the window is zero-padded
            to ``n_fft`` on both sides). Default: ``n_fft``.
        window (Tensor, optional): 1-D of ``win_length``. Default: ``None`` (all ones).
        center (bool): pad ``input`` by ``n_fft // 2`` on both sides so that frame ``t`` is centred on
            ``t * hop_length``. Default: ``True``.
        pad_mode (str): the padding for ``center``: ``"reflect"``, ``"constant"``, ``"replicate"`` or
            ``"circular"``. Default: ``"reflect"``.
        normalized (bool): multiply by ``n_fft ** -0.5``. Default: ``False``.
        onesided (bool, optional): only the ``n_fft // 2 + 1`` non-negative frequencies. Default:
            ``True`` for a real input and window, ``False`` otherwise.
        return_complex (bool): a complex result; ``False``: the real and imaginary parts in a last
            dim of 2. Required for real inputs, as in torch.

    Returns:
        Tensor: ``(B?, N, n_frames)`` complex (``N = n_fft // 2 + 1`` one-sided, else ``n_fft``), or
        ``(B?, N, n_frames, 2)`` real; ``n_frames = 1 + (L' - n_fft) // hop_length``, ``L'`` the padded length.

    Example::

        >>> import monoflow as flow
        >>> flow.stft(flow.tensor([1.0, 2.0, 3.0, 4.0]), n_fft=2, hop_length=2, center=False,
        ...           return_complex=True)
        tensor([[ 3.+0.j,  7.+0.j],
                [-1.+0.j, -1.+0.j]])
    """
    from monoflow import fft
    from monoflow.nn.functional import pad

    input = _C.check_tensor(input, "stft", "input", 1)
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft(): Expected a 1D or 2D tensor, but got {input.dim()}D")
    n_fft = int(n_fft)
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    is_complex = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not is_complex:
            raise RuntimeError("stft(): stft requires the return_complex parameter be given for real inputs, "
                               "and will further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    # (PyTorch's checks, in OneFlow's capitalisation)
    if n_fft <= 0:
        raise RuntimeError(f"stft(): Expected 0 < n_fft <= the padded input length, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft(): Expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft(): Expected 0 < win_length <= n_fft, but got win_length={win_length}")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    if center:
        p = n_fft // 2
        x = pad(x.unsqueeze(1), (p, p), mode=pad_mode).squeeze(1)
    length = x.shape[-1]
    if n_fft > length:
        raise RuntimeError(f"stft(): Expected 0 < n_fft <= {length} (the padded input length), but got n_fft={n_fft}")
    if window is not None:
        window = _C.check_tensor(window, "stft", "window", 6)
        if window.dim() != 1 or window.shape[0] != win_length:
            raise RuntimeError(f"stft(): Expected a 1D window tensor of size equal to win_length={win_length}, "
                               f"but got window with size {list(window.shape)}")
        if win_length < n_fft:
            left = (n_fft - win_length) // 2
            window = pad(window.reshape(1, 1, -1), (left, n_fft - win_length - left)).reshape(-1)
    elif win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _creation.zeros(n_fft, dtype=x.dtype if not x.is_complex() else None, device=x.device)
        window[left:left + win_length] = 1.0
    frames = x.unfold(-1, n_fft, hop)  # (B, n_frames, n_fft)
    if window is not None:
        frames = frames * window
    if onesided is None:
        onesided = not is_complex
    if onesided:
        if is_complex:
            raise RuntimeError("stft(): cannot have onesided output if window or input is complex")
        spec = fft.rfft(frames, dim=-1)
    else:
        spec = fft.fft(frames, dim=-1)
    if normalized:
        spec = spec * (n_fft ** -0.5)
    spec = spec.transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    return spec if return_complex else _complex.view_as_real(spec.contiguous())


def _tensor_stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                 normalized=False, onesided=None, return_complex=None):
    """``monoflow.stft(self, ...)``: the short-time Fourier transform of this tensor; see :func:`monoflow.stft`.

    Args:
        n_fft (int): the frame length.
        hop_length (int, optional): the distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's length. Default: ``n_fft``.
        window (Tensor, optional): the window. Default: ``None`` (all ones).
        center (bool): pad by ``n_fft // 2`` on both sides. Default: ``True``.
        pad_mode (str): the padding for ``center``. Default: ``"reflect"``.
        normalized (bool): multiply by ``n_fft ** -0.5``. Default: ``False``.
        onesided (bool, optional): only the non-negative frequencies. Default: ``None``.
        return_complex (bool): a complex result. Required for real inputs.

    Example::

        >>> import monoflow as flow
        >>> flow.tensor([1.0, 2.0, 3.0, 4.0]).stft(2, 2, center=False, return_complex=True).shape
        monoflow.Size([2, 2])
    """
    return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex)


def _install():
    setattr(Tensor, "stft", _tensor_stft)


_install()



stft = names_its_errors(stft)  # its refusals from the fft and unfold beneath name stft
