"""Ingestion is asynchronous: reads see an event once the processor priced it."""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable, TypeVar

T = TypeVar("T")


def eventually(read: Callable[[], T], done: Callable[[T], bool], timeout: float = 90, every: float = 0.5) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(every)


async def eventually_async(read: Callable[[], Awaitable[T]], done: Callable[[T], bool], timeout: float = 90, every: float = 0.5) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = await read()
        if done(value) or time.monotonic() > deadline:
            return value
        await asyncio.sleep(every)
