"""Shared dedup stores; each needs its driver (``pip install 'mos-handler-kit[dynamodb]'`` or ``[postgres]``)."""
