print("keep-bench: not built yet")
