def reset(state):
    if state:
        state.clear()  # drop everything
    return state
