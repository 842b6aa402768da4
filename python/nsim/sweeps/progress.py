"""The sweep's progress line on stderr: points done, cache hits, rate, ETA.
Redrawn in place on a terminal; elsewhere one line per tenth of the sweep."""
import sys
import time

WIDTH = 30


class Progress:
    def __init__(self, total, cached, enabled, stream=None):
        self.total, self.cached, self.enabled = total, cached, enabled
        self.stream = stream or sys.stderr
        self.done = cached
        self.start = time.monotonic()
        self.tty = self.stream.isatty()
        self.last_tenth = -1
        self._draw()

    def advance(self):
        self.done += 1
        self._draw()

    def line(self):
        ran = self.done - self.cached
        elapsed = time.monotonic() - self.start
        left = self.total - self.done
        if ran and left:
            eta = "ETA %s" % _clock(elapsed / ran * left)
        else:
            eta = "done in %s" % _clock(elapsed) if not left else "ETA --:--"
        filled = WIDTH * self.done // max(self.total, 1)
        return "sweep [%s%s] %d/%d points (%d cached) %s" % (
            "#" * filled, "." * (WIDTH - filled), self.done, self.total, self.cached, eta)

    def _draw(self):
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r" + self.line() + ("\n" if self.done == self.total else ""))
        else:
            tenth = 10 * self.done // max(self.total, 1)
            if tenth == self.last_tenth:
                return
            self.last_tenth = tenth
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self):
        if self.enabled and self.tty and self.done != self.total:
            self.stream.write("\n")


def _clock(seconds):
    seconds = int(round(seconds))
    return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60) if seconds >= 3600 else \
        "%d:%02d" % (seconds // 60, seconds % 60)
