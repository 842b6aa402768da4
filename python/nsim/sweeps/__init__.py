"""Design-space sweeps (docs/sweep.md): a YAML spec of kernels, configs and
overrides, run in parallel here or on Ray, cached by content, written as
Parquet/CSV and report.html. `nsim.sweep(spec)` is the Python entry point."""
