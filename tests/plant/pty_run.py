"""Runs a command on a pseudo-terminal of a given size, as a user's terminal would run it, and
records what it writes: a JSON list of [wall-clock seconds, text] chunks, as they arrived.

Usage: pty_run.py COLUMNS ROWS OUTPUT.json COMMAND [ARGS...]. Exits with the command's exit code.
"""
import fcntl
import json
import os
import pty
import struct
import sys
import termios
import time

columns, rows, output = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
command = sys.argv[4:]

pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
chunks = []
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:  # EIO: the child is gone and the terminal closed
        break
    if not data:
        break
    chunks.append([time.time(), data.decode("utf-8", "replace")])
_, status = os.waitpid(pid, 0)
with open(output, "w") as f:
    json.dump(chunks, f)
sys.exit(os.waitstatus_to_exitcode(status))
