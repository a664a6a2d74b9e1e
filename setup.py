"""The one part of the build that ``pyproject.toml`` cannot declare yet (its ``ext-modules``
table is experimental in setuptools): the referee's request encoder, the double-dummy search
and the environments' observation encoder in C.

``optional``: where they cannot be built (no C compiler, no Python headers) the install goes
on, and the Python references serve: the referee uses the Python encoder
(``arena.referee.wire.PythonRequestEncoder``), which gives the same bytes, and the analysis the
Python search (``arena.analysis.search.Search``), which gives the same values, slower, and the
environments the Python observation encoder (``arena.envs.encoding.encode_match_py``), which
gives the same arrays.
"""

from setuptools import Extension, setup

try:  # the observation encoder makes its arrays through NumPy's C API
    import numpy

    _NUMPY_INCLUDE = [numpy.get_include()]
except ImportError:  # no NumPy to build against: the Python encoder serves
    _NUMPY_INCLUDE = None

setup(
    ext_modules=[
        Extension(
            "arena.referee._wire",
            sources=["arena/referee/_wire.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "arena.analysis._dd",
            sources=["arena/analysis/_dd.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
    + (
        []
        if _NUMPY_INCLUDE is None
        else [
            Extension(
                "arena.envs._obs",
                sources=["arena/envs/_obs.c"],
                include_dirs=_NUMPY_INCLUDE,
                extra_compile_args=["-O2"],
                optional=True,
            )
        ]
    )
)
