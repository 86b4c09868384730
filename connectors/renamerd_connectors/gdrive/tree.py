"""What a Drive connection remembers of the folder hierarchy, so paths cost no API calls.

Drive knows files by id and parents, not by path. `FolderTree` caches folders as
id -> (name, parent id), learnt from listings, lookups and the changes feed (which reports folder
renames, moves and deletions, so the cache follows them), plus the (parent, name) -> id choices
made when resolving a path (with duplicate names, the oldest folder). Bounded (LRU): memory does
not grow with the drive beyond `limit` folders.
"""

from __future__ import annotations

from collections import OrderedDict

from renamerd.connectors import join_path

_MAX_DEPTH = 256


class FolderTree:
    def __init__(self, root_id: str, *, limit: int = 50_000) -> None:
        self.root_id = root_id
        self.limit = limit
        self._nodes: OrderedDict[str, tuple[str, str | None]] = OrderedDict()
        self._chosen: dict[tuple[str, str], str] = {}

    def __len__(self) -> int:
        return len(self._nodes)

    def learn(self, folder_id: str, name: str, parent_id: str | None) -> None:
        """Record a folder's current name and parent (None: a top with no parent we can see)."""
        if folder_id == self.root_id:
            return
        old = self._nodes.get(folder_id)
        if old is not None and old != (name, parent_id):
            self._unchoose(folder_id)
        self._nodes[folder_id] = (name, parent_id)
        self._nodes.move_to_end(folder_id)
        while len(self._nodes) > self.limit:
            evicted, _ = self._nodes.popitem(last=False)
            self._unchoose(evicted)

    def forget(self, folder_id: str) -> None:
        """Drop a folder that was deleted, trashed or found missing."""
        self._nodes.pop(folder_id, None)
        self._unchoose(folder_id)

    def choose(self, parent_id: str, name: str, folder_id: str) -> None:
        """Remember that `name` in `parent_id` resolves to `folder_id`."""
        self._chosen[(parent_id, name)] = folder_id

    def chosen(self, parent_id: str, name: str) -> str | None:
        folder_id = self._chosen.get((parent_id, name))
        if folder_id is not None and folder_id in self._nodes:
            self._nodes.move_to_end(folder_id)
            return folder_id
        return None

    def _unchoose(self, folder_id: str) -> None:
        for key in [k for k, v in self._chosen.items() if v == folder_id]:
            del self._chosen[key]

    def unknown_ancestor(self, folder_id: str, *, stop: str | None = None) -> str | None:
        """The first folder on the way up from `folder_id` we know nothing of, or None.

        The walk ends at the root, at `stop`, or at a folder without a parent.
        """
        cur: str | None = folder_id
        for _ in range(_MAX_DEPTH):
            if cur is None or cur == self.root_id or cur == stop:
                return None
            node = self._nodes.get(cur)
            if node is None:
                return cur
            cur = node[1]
        return None

    def is_under(self, folder_id: str, ancestor_id: str) -> bool:
        """Whether `folder_id` is `ancestor_id` or lies below it (needs the chain known)."""
        cur: str | None = folder_id
        for _ in range(_MAX_DEPTH):
            if cur == ancestor_id:
                return True
            if cur is None or cur == self.root_id:
                return False
            node = self._nodes.get(cur)
            if node is None:
                return False
            cur = node[1]
        return False

    def path_of(self, folder_id: str) -> str:
        """The folder's provider path ("/" for the root). A chain that does not reach the root
        (an item shared with the user from outside) is rooted at its topmost visible folder."""
        names: list[str] = []
        cur: str | None = folder_id
        for _ in range(_MAX_DEPTH):
            if cur is None or cur == self.root_id:
                break
            node = self._nodes.get(cur)
            if node is None:
                break
            names.append(node[0])
            cur = node[1]
        path = "/"
        for name in reversed(names):
            path = join_path(path, name)
        return path
