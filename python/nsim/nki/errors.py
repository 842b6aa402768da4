"""Errors a kernel author makes, reported at the kernel's source line."""
import linecache
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def at(where):
    """`file.py:12` for a (path, line) source location: how every message and comment names a line."""
    return "%s:%d" % (os.path.basename(where[0]), where[1])


class KernelError(Exception):
    """A kernel is wrong (shape, partition dim, capacity, unsupported API, ...).

    `filename` and `lineno` name the kernel source line that caused it.
    """

    def __init__(self, message, where=None):
        self.message = message
        self.filename, self.lineno = where if where else (None, None)
        super().__init__(self._text())

    def _text(self):
        if self.filename is None:
            return self.message
        src = linecache.getline(self.filename, self.lineno).strip()
        head = "%s: %s" % (at((self.filename, self.lineno)), self.message)
        return head + ("\n    " + src if src else "")


class Unsupported(KernelError, NotImplementedError):
    """An NKI API the simulator frontend does not implement (yet)."""


_IN_PACKAGE = {}  # code object -> whether it is the frontend's own code


def _in_package(code):
    inside = _IN_PACKAGE.get(code)
    if inside is None:
        inside = _IN_PACKAGE[code] = os.path.abspath(code.co_filename).startswith(_PACKAGE_DIR + os.sep)
    return inside


def user_frames():
    """Frames of the kernel's own code, innermost first: those outside this package."""
    frames = []
    f = sys._getframe(1)
    while f is not None:
        if not _in_package(f.f_code):
            frames.append(f)
        elif frames:
            break  # back in the frontend (the tracer): the kernel's frames end here
        f = f.f_back
    return frames


def where():
    """(filename, lineno) of the innermost kernel source line, or None."""
    frames = user_frames()
    return (frames[0].f_code.co_filename, frames[0].f_lineno) if frames else None


def stack():
    """The kernel's call stack here, innermost first: ((filename, lineno, function), ...)."""
    return tuple((f.f_code.co_filename, f.f_lineno, f.f_code.co_name) for f in user_frames())


def fail(message, cls=KernelError):
    raise cls(message, where())


def checked_calls(namespace, prefix):
    """Wraps the public functions of a module's namespace so that a call that does not fit the
    signature (a misspelt or unknown keyword, a missing argument) is a KernelError at the kernel's
    line naming the API, not a Python TypeError from inside the frontend."""
    import functools
    import inspect
    for name, fn in list(namespace.items()):
        if name.startswith("_") or not inspect.isfunction(fn) or fn.__module__ != namespace["__name__"]:
            continue
        if getattr(fn, "nsim_unsupported", False):
            continue
        namespace[name] = _checked(fn, "%s.%s" % (prefix, name), inspect.signature(fn, follow_wrapped=False), functools)


def _checked(fn, api, signature, functools):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError:
            # Python checks a call's arguments before its body runs, so a call that does not fit did
            # nothing: binding only after a TypeError spares every call that fits (most of tracing's
            # calls) the cost of inspect's bind.
            why = misfit(signature, args, kwargs)
            if why is None:
                raise
        fail("%s: %s" % (api, why))
    return call


def misfit(signature, args, kwargs):
    """Why a call does not fit the signature, or None when it does."""
    try:
        signature.bind(*args, **kwargs)
    except TypeError as e:
        return str(e)
    return None
