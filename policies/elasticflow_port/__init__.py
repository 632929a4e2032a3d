"""A port of tracetui's built-in `elasticflow` policy over protocol
version 2, one module per file of src/sim/policies/elasticflow/ (see
policies/elasticflow.py, which runs it)."""

from .policy import ElasticFlow

__all__ = ["ElasticFlow"]
