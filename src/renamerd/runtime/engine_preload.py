"""Imported once by the engine pool's forkserver: warms the engine up there (readers
imported, keyword patterns built, the heap frozen), so every worker process forked from it,
replacements of killed ones included, starts warm at no cost. Not for any other use."""

from renamerd.runtime.engine_child import ping
from renamerd.runtime.startup import prepare_long_running

prepare_long_running()
ping()
