"""Reading tables and matrices into arrays; writing output files atomically."""
