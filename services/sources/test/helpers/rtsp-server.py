"""A room camera's RTSP server for the stream sources tests: GStreamer's RTSP server (Debian's
gir1.2-gst-rtsp-server-1.0) serving a WAV file as 16 kHz L16 audio at rtsp://127.0.0.1:PORT/PATH,
each client from the start. Usage: rtsp-server.py PORT PATH WAV. Prints "ready" once listening."""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

Gst.init(None)
port, path, clip = sys.argv[1], sys.argv[2], sys.argv[3]
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(
    f'( filesrc location="{clip}" ! wavparse ! audioconvert ! audioresample'
    " ! audio/x-raw,format=S16BE,channels=1,rate=16000 ! rtpL16pay name=pay0 pt=96 )"
)
server.get_mount_points().add_factory(path, factory)
if server.attach(None) == 0:
    sys.exit(f"cannot listen on 127.0.0.1:{port}")
print("ready", flush=True)
GLib.MainLoop().run()
