def reset(state):
    if state:
        pass
    return state
