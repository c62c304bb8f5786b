"""The pipeline engine of ``cellkit.dataset``: datasets, their operations, samplers and iterators."""
