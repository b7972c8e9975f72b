# Runs Apertium APy (`apertium-apy`, Debian's package) listening on one address only, with no
# caption text in its log. APy itself binds every interface and has no option for it; tests,
# benchmarks and `pnpm start` want it on loopback, where nothing else on the network can reach it
# (the apertium image runs it on 0.0.0.0 of its internal network). Tornado's access log prints
# each request's URI, and `/translate?q=...` carries the caption being translated: the query is
# left out of those lines. Usage (with APy's interpreter):
#   python3 packages/apertium/src/apertium-loopback.py ADDRESS [apertium-apy arguments...]
import logging
import re
import sys
from importlib.metadata import entry_points

from tornado.tcpserver import TCPServer

address = sys.argv.pop(1)
_bind = TCPServer.bind


def bind(self, port, address_=None, *args, **kwargs):
    return _bind(self, port, address if address_ in (None, '') else address_, *args, **kwargs)


class WithoutQuery(logging.Filter):
    """Drops the query of the URI in Tornado's access lines ("%d %s %.2fms": status, summary, time)."""

    def filter(self, record):
        if isinstance(record.args, tuple) and len(record.args) >= 2 and isinstance(record.args[1], str):
            record.args = (record.args[0], re.sub(r'\?\S*', '', record.args[1]), *record.args[2:])
        return True


TCPServer.bind = bind
logging.getLogger('tornado.access').addFilter(WithoutQuery())
sys.argv[0] = 'apertium-apy'
main = next(ep for ep in entry_points(group='console_scripts') if ep.name == 'apertium-apy').load()
sys.exit(main())
