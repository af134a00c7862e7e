import multiprocessing
from multiprocessing import shared_memory


def square(x):
    return x * x


def test_a_pool_maps_across_processes():
    with multiprocessing.Pool(2) as pool:
        assert pool.map(square, range(20)) == [x * x for x in range(20)]


def test_a_lock_and_a_queue_work():
    lock = multiprocessing.Lock()
    queue = multiprocessing.Queue()
    with lock:
        queue.put("sent")
    assert queue.get(timeout=10) == "sent"


def test_shared_memory_is_shared_with_a_child():
    block = shared_memory.SharedMemory(create=True, size=16)
    try:
        child = multiprocessing.Process(target=_write_into, args=(block.name,))
        child.start()
        child.join(10)
        assert child.exitcode == 0
        assert bytes(block.buf[:5]) == b"hello"
    finally:
        block.close()
        block.unlink()


def _write_into(name):
    block = shared_memory.SharedMemory(name=name)
    block.buf[:5] = b"hello"
    block.close()
