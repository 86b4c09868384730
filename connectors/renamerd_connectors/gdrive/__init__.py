"""Google Drive connector (Drive v3 via google-api-python-client). See `connector.py`."""

from .connector import GDriveConnector

__all__ = ["GDriveConnector"]
