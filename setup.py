"""The one part of the build that ``pyproject.toml`` cannot declare yet (its ``ext-modules``
table is experimental in setuptools): the referee's request encoder in C.

``optional``: where it cannot be built (no C compiler, no Python headers) the install goes on,
and the referee uses the Python encoder (``arena.referee.wire.PythonRequestEncoder``), which
gives the same bytes.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "arena.referee._wire",
            sources=["arena/referee/_wire.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
