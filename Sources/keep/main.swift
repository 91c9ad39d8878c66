print("keep: not built yet")
