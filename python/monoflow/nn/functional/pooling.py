"""(filled in by the convolution/pooling work)"""
__all__ = []
