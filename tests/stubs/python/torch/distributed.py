"""torch.distributed: remembers the backend a process group was started with."""

backend = None


def init_process_group(name, rank=0, world_size=1):
    global backend
    backend = name
