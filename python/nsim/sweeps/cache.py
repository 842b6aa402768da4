"""Results by content: one JSON file per cache key (kernel hash, resolved
config hash, nsim version, timing mode; points.py). Written atomically as
each point finishes, so a killed or interrupted sweep keeps every finished
point and its rerun starts from them."""
import json
import os
import tempfile


class Cache:
    def __init__(self, directory):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)

    def _path(self, key):
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key):
        try:
            with open(self._path(key)) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def put(self, key, value):
        path = self._path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(value, f)
            os.replace(tmp, path)
        except BaseException:  # Ctrl-C mid-write leaves no half file behind
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
