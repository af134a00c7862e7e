def drain(queue, log):
    for item in queue:
        log.append(item)
    else:
        log.append("done")
    while queue:
        queue.pop()
    return log


for x in range(3):
    print(x)
