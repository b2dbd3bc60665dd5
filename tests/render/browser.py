"""A tiny Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (test helper).

No websocket and no Playwright needed: Chromium reads JSON commands from fd 3 and writes
replies to fd 4, each message ended by a NUL byte. ``Browser.find()`` looks for Debian's
``chromium`` (or Chrome) and returns None when there is none.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


class BrowserError(RuntimeError):
    pass


class Browser:
    NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

    @classmethod
    def find(cls):
        for name in cls.NAMES:
            exe = shutil.which(name)
            if exe:
                return exe
        return None

    def __init__(self, exe, width=1280, height=900):
        self.profile = tempfile.mkdtemp(prefix="vg-chrome-")
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def setup():  # in the child: fd 3 = commands in, fd 4 = replies out
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-dev-shm-usage", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
             "about:blank"],
            pass_fds=(3, 4, to_child_r, from_child_w), preexec_fn=setup,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._id = 0
        self._buf = b""
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=30):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            while b"\0" not in self._buf:
                if time.time() > deadline:
                    raise BrowserError(f"no reply to {method}")
                chunk = os.read(self._r, 1 << 16)
                if not chunk:
                    raise BrowserError("the browser closed the pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        att = self.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                  "flatten": True}, session=False)
        self.session = att["sessionId"]
        self.send("Page.enable")
        self.send("Network.enable")
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete'")

    def eval(self, expr, await_promise=False):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            raise BrowserError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expr, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.eval(expr):
                return
            time.sleep(0.05)
        raise BrowserError(f"timed out waiting for {expr}")

    def key(self, key, code, vk):
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code,
                                                 "windowsVirtualKeyCode": vk})

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return data

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:  # noqa: BLE001
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)
