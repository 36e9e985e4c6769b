"""Host adapters: each host payload in, each host-native answer out."""
