# Health check of the apertium image (compose/apertium.Dockerfile): APy answers /listPairs with at
# least one language pair. Python's standard library only: the image has no other HTTP client.
import json
import os
import sys
import urllib.request

url = f"http://127.0.0.1:{os.environ.get('APERTIUM_PORT', '2737')}/listPairs"
try:
    with urllib.request.urlopen(url, timeout=4) as response:
        pairs = json.load(response).get('responseData') or []
except Exception as error:  # noqa: BLE001 - any failure is "unhealthy", said in one line
    print(f'{url}: {error}')
    sys.exit(1)
if not pairs:
    print(f'{url}: no language pair installed')
    sys.exit(1)
