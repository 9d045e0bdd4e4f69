"""Certified numerics of the sinusoidal encoding.

``expo``        float64 tables of ``exp(i omega_j m)`` grown from arb seeds, proved error bounds
``scan``        the chunked float64 pre-scan of ``D(k)`` with a proved bound (a worker task)
``separation``  certified minimum separation of the positions ``0 .. N-1`` (float64 pre-scan, arb
                for every candidate), chunked over any ``concurrent.futures.Executor``
``confirm``     mpmath evidence at 50 digits for the reported minima and a random sample
``recipes``     the encoding as real pipelines compute it (PyTorch tutorial / power recipes) in
                float64, float32, float16 and bfloat16 (ml_dtypes)
``horizon``     precision horizons: first collision, first error past half the certified
                separation, first overflow
``engine``      ``run_chunks``: any chunked scan inline, on a process pool or on Dask, with
                checkpoints, progress and Ctrl-C/SIGTERM leaving a resumable state
``distributed`` the Dask side: a cluster by address or a LocalCluster of worker processes
``checkpoint``  finished chunks on disk, atomically, keyed by scan parameters and code version,
                listed in a signed manifest, locked for one run, kept until the outputs are written
``recertify``   every chunk of the separation scan checked, its named values and the merged
                result certified again in arb (why no corrupted chunk changes a result)
``progress``    the tqdm progress bar (terminals only)
``longctx``     the long-context results file (schema ``peproof.longctx/1``) and its tables

The core never imports the CLI; ``peproof separation`` and ``peproof horizon`` read from here.
"""

import math

#: ceil(2 pi 10^4) = 62832: the seed's "about 2 pi 10000" positions, the default N everywhere
N_TURN = math.ceil(2 * math.pi * 10**4)
#: the model dimensions the separation tables and the uniqueness chain are computed for
D_ALL = (4, 8, 16, 32, 64, 128, 256, 512, 768, 1024)
