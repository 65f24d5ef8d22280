"""torch.stft (short-time Fourier transform) as frames (unfold) times the window, then fft.rfft / fft.fft;
torch.istft as fft.irfft / fft.ifft of each frame times the window, overlap-added (fold) and divided by the
overlap-added squared window. Values and gradients are those ops'."""
from monoflow import _C, _complex, _creation
from monoflow import ops_shape as _shape
from monoflow._op_names import names_its_errors
from monoflow._tensor import Tensor

__all__ = ["stft", "istft"]


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


def _overlap_add(frames, hop):
    """(B, n_frames, n_fft) frames -> (B, n_fft + hop * (n_frames - 1)): frame t added at t * hop."""
    from monoflow.nn.functional import fold

    b, n_frames, n_fft = frames.shape
    length = n_fft + hop * (n_frames - 1)
    if frames.is_complex():  # fold is real: the real and imaginary parts as two channels
        parts = _complex.view_as_real(frames.contiguous()).permute(0, 3, 2, 1).reshape(b, 2 * n_fft, n_frames)
        out = fold(parts, output_size=(1, length), kernel_size=(1, n_fft), stride=(1, hop))
        return _complex.view_as_complex(out.reshape(b, 2, length).permute(0, 2, 1).contiguous())
    out = fold(frames.transpose(1, 2), output_size=(1, length), kernel_size=(1, n_fft), stride=(1, hop))
    return out.reshape(b, length)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """Inverse short-time Fourier transform (as ``torch.istft``): the signal whose :func:`stft` is ``input``.

    Each frame's inverse DFT is multiplied by ``window`` and the frames are overlap-added
    ``hop_length`` apart; the sum is divided by the overlap-added squared window (the window
    envelope), which must not vanish anywhere in the kept range (a ``RuntimeError`` otherwise).

    Args:
        input (Tensor): complex, ``(N, n_frames)`` or ``(B, N, n_frames)``, ``N = n_fft // 2 + 1``
            (one-sided) or ``n_fft``: what ``stft(..., return_complex=True)`` returns.
        n_fft (int): the frame length (DFT size).
        hop_length (int, optional): the distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's length, at most ``n_fft``. Default: ``n_fft``.
        window (Tensor, optional): 1-D of ``win_length`` (zero-padded to ``n_fft`` on both sides).
            Default: ``None`` (all ones).
        center (bool): ``input`` came from a signal padded by ``n_fft // 2`` on both sides; drop
            that padding. Default: ``True``.
        normalized (bool): ``input`` was scaled by ``n_fft ** -0.5``. Default: ``False``.
        onesided (bool, optional): ``input`` holds the ``n_fft // 2 + 1`` non-negative frequencies
            only. Default: ``True`` when its frequency dim is not ``n_fft``.
        length (int, optional): the output's length: cut, or zero-padded at the end. Default: the
            overlap-added length, less the ``center`` padding.
        return_complex (bool): a complex signal (needs ``onesided=False``). Default: ``False``.

    Returns:
        Tensor: ``(L,)`` or ``(B, L)``, real (complex with ``return_complex``).

    Example::

        >>> import monoflow as flow
        >>> x = flow.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
        >>> spec = flow.stft(x, n_fft=4, hop_length=1, window=flow.hann_window(4), return_complex=True)
        >>> y = flow.istft(spec, n_fft=4, hop_length=1, window=flow.hann_window(4), length=8)
        >>> flow.allclose(y, x, atol=1e-6)
        True
    """
    from monoflow import fft
    from monoflow.nn.functional import pad

    input = _C.check_tensor(input, "istft", "input", 1)
    if not input.is_complex():
        raise RuntimeError("istft(): istft requires a complex-valued input tensor matching the output from stft "
                           "with return_complex=True.")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft(): expected a 2D or 3D complex tensor (freq, frames) or (batch, freq, frames), "
                           f"but got {input.dim()}D")
    n_fft = int(n_fft)
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win_length = n_fft if win_length is None else int(win_length)
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"istft(): expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if not 0 < hop <= win_length:
        raise RuntimeError(f"istft(): expected 0 < hop_length <= win_length, but got hop_length={hop}")
    spec = input if input.dim() == 3 else input.unsqueeze(0)
    n_freq = spec.shape[-2]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided and n_freq != n_fft // 2 + 1:
        raise RuntimeError(f"istft(): expected the frequency dimension (second to last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {n_freq}")
    if not onesided and n_freq != n_fft:
        raise RuntimeError(f"istft(): expected the frequency dimension (second to last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {n_freq}")
    if return_complex and onesided:
        raise RuntimeError("istft(): Cannot have onesided output if window or input is complex")
    real_dtype = input.dtype.to_real()
    if window is None:
        window = _creation.ones(win_length, dtype=real_dtype, device=input.device)
    else:
        window = _C.check_tensor(window, "istft", "window", 5)
        if window.dim() != 1 or window.shape[0] != win_length:
            raise RuntimeError("istft(): Invalid window shape. window has to be 1D and length of `win_length`")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = pad(window.reshape(1, 1, -1), (left, n_fft - win_length - left)).reshape(-1)
    norm = "ortho" if normalized else "backward"
    frames = spec.transpose(-1, -2)  # (B, n_frames, N)
    if return_complex:
        frames = fft.ifft(frames, dim=-1, norm=norm)
    else:
        if not onesided:
            frames = frames[..., :n_fft // 2 + 1]
        frames = fft.irfft(frames, n=n_fft, dim=-1, norm=norm)
    n_frames = frames.shape[1]
    y = _overlap_add(frames * window, hop)
    # the envelope: the squared window (w * w, as torch, also for a complex window) overlap-added
    envelope = _overlap_add((window * window).expand(1, n_frames, n_fft), hop).reshape(-1)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    else:
        end = y.shape[-1] - n_fft // 2 if center else y.shape[-1]
    y, envelope = y[:, start:end], envelope[start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError("istft(): window overlap add min: the window envelope (the overlap-added squared window) "
                           "is zero somewhere, so the signal cannot be recovered; check window and hop_length")
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = _shape.cat([y, _creation.zeros(y.shape[0], int(length) - y.shape[-1], dtype=y.dtype, device=y.device)], 1)
    return y.squeeze(0) if input.dim() == 2 else y


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


def _tensor_istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
                  onesided=None, length=None, return_complex=False):
    """``monoflow.istft(self, ...)``: the inverse short-time Fourier transform of this spectrogram; see
    :func:`monoflow.istft`.

    Args:
        n_fft (int): the frame length.
        hop_length (int, optional): the distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's length. Default: ``n_fft``.
        window (Tensor, optional): the window. Default: ``None`` (all ones).
        center (bool): drop the ``n_fft // 2`` padding of both ends. Default: ``True``.
        normalized (bool): the spectrogram was scaled by ``n_fft ** -0.5``. Default: ``False``.
        onesided (bool, optional): only the non-negative frequencies. Default: ``None``.
        length (int, optional): the output's length. Default: ``None``.
        return_complex (bool): a complex signal. Default: ``False``.

    Example::

        >>> import monoflow as flow
        >>> spec = flow.stft(flow.arange(8.0), 4, 1, window=flow.hann_window(4), return_complex=True)
        >>> spec.istft(4, 1, window=flow.hann_window(4), length=8).shape
        monoflow.Size([8])
    """
    return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length, return_complex)


def _install():
    setattr(Tensor, "stft", _tensor_stft)
    setattr(Tensor, "istft", _tensor_istft)


_install()



stft = names_its_errors(stft)  # its refusals from the fft and unfold beneath name stft
istft = names_its_errors(istft)
