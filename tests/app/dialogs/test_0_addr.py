def test_addr(qapp):
    import os
    import signal

    import shiboken6
    from PySide6.QtGui import QGuiApplication

    s = QGuiApplication.primaryScreen()
    addr = shiboken6.getCppPointer(s)[0]
    with open("/tmp/screen_addr", "w") as f:
        f.write(hex(addr))
    os.kill(os.getpid(), signal.SIGUSR2)
