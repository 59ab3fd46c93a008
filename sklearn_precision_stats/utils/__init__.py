"""Private helpers: input validation and compatibility with scikit-learn."""
