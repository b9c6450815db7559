"""What the Python test scripts share: waiting on observed state, never a fixed sleep."""
import time


def until(predicate, limit_s=30, step_s=0.05):
    """True once `predicate` holds, polling every `step_s`; False after `limit_s`."""
    deadline = time.time() + limit_s
    while not predicate():
        if time.time() > deadline:
            return False
        # sleep-ok(poll): until(), the Python scripts' wait on state
        time.sleep(step_s)
    return True
