"""The connector protocol and its registry: what every provider plugin implements
(`protocol`), the helpers they share (`helpers`), and how the daemon finds them (`registry`).

Plugins (ours in the top-level `connectors/renamerd_connectors/`, and third-party ones) import
what they need from this package: `from renamerd.connectors import Connector, RemoteFile, Pacer`.
"""

from renamerd.connectors.helpers import Pacer, free_name, iter_chunks, join_path, split_name
from renamerd.connectors.protocol import (
    AuthError,
    Changes,
    ConfigError,
    Conflict,
    Connector,
    ConnectorError,
    NotFound,
    RemoteFile,
    SupportsConnectFlow,
    SupportsRemoveEmptyFolder,
    SupportsWaitForChanges,
    TooLarge,
    TransientError,
)
from renamerd.connectors.registry import (
    available_providers,
    load_connector,
    open_connector,
    resolve_options,
    resolve_secret,
)

__all__ = [
    "AuthError", "Changes", "ConfigError", "Conflict", "Connector", "ConnectorError", "NotFound",
    "Pacer", "RemoteFile", "SupportsConnectFlow", "SupportsRemoveEmptyFolder",
    "SupportsWaitForChanges", "TooLarge", "TransientError", "available_providers", "free_name",
    "iter_chunks", "join_path",
    "load_connector", "open_connector", "resolve_options", "resolve_secret", "split_name",
]
