"""`paicli serve --http [--port N] [--host H]`: the Runtime API (cli/runtime_api.py) until Ctrl+C or SIGTERM."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from paicli.cli.runtime_api import RuntimeServer
from paicli.cli.runtime_runs import RunRegistry
from paicli.config import knobs
from paicli.config.env import ConfigError, EnvLookup

EXIT_OK = 0
EXIT_USAGE = 2
DEFAULT_PORT = 8080
KEY_NAME = knobs.RUNTIME_API_KEY.key
NO_KEY = f"❌ 错误: 未设置 {KEY_NAME}；Runtime API 的每个请求都要用它认证（在环境变量或 paicli 主目录的 .env 中设置）"


def serve_parser() -> argparse.ArgumentParser:
    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            sys.stderr.write(f"paicli serve: {message}（用 paicli serve --help 查看用法）\n")
            raise SystemExit(EXIT_USAGE)

    parser = _Parser(
        prog="paicli serve",
        description="以服务方式运行 paicli：Runtime API（每个请求在自己的会话里运行一个无界面的 Agent）。",
    )
    parser.add_argument("--http", action="store_true", help="启动 HTTP Runtime API（目前唯一的服务方式）")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="监听端口（默认 8080；0 表示任选空闲端口）"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="监听地址（默认 127.0.0.1，只有本机可以访问；其他地址会收到一条警告）",
    )
    return parser


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_main(argv: Sequence[str], *, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    args = serve_parser().parse_args(list(argv))
    if not args.http:
        sys.stderr.write("paicli serve: 请指定服务方式，例如 paicli serve --http --port 8080\n")
        return EXIT_USAGE
    if not 0 <= args.port <= 65535:
        sys.stderr.write("paicli serve: --port 必须在 0..65535 之间\n")
        return EXIT_USAGE
    env = EnvLookup()
    server = _server(env, args)
    if isinstance(server, int):
        return server
    port = server.server_address[1]
    if not is_loopback(args.host):
        sys.stderr.write(
            f"⚠️ Runtime API 监听在 {args.host}，其他机器也能访问；请使用足够长的 API Key，并用防火墙限制来源。\n"
        )
    shown = "127.0.0.1" if is_loopback(args.host) else args.host
    out.write(f"✅ PaiCLI Runtime API 已启动: http://{shown}:{port}\n")
    out.write(f"   认证: Authorization: Bearer <{KEY_NAME}>\n")
    out.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        _stop(server)
    return EXIT_OK


def _server(env: EnvLookup, args: argparse.Namespace) -> RuntimeServer | int:
    from paicli.cli.launch import configure_logging
    from paicli.config.parsed import ParsedConfig
    from paicli.config.settings import load_settings
    from paicli.config.validate import validate_knobs
    from paicli.fsperm import secure_tree

    try:
        validate_knobs(env)
        settings = load_settings(env)  # no provider or a bad setting: said now, not at the first request
    except ConfigError as exc:
        sys.stderr.write(f"paicli: {exc}\n")
        return EXIT_USAGE
    key = knobs.RUNTIME_API_KEY.read(env)
    if not key:
        sys.stderr.write(NO_KEY + "\n")
        return EXIT_USAGE
    secure_tree(settings.paicli_home)
    configure_logging(settings.paicli_home, ParsedConfig.read(env))
    registry = RunRegistry(EnvLookup, Path.cwd())
    try:
        return RuntimeServer((args.host, args.port), registry, key)
    except OSError as exc:
        sys.stderr.write(f"paicli serve: 无法监听 {args.host}:{args.port}: {exc.strerror or exc}\n")
        return EXIT_USAGE


def _stop(server: RuntimeServer) -> None:
    """Runs still going are cancelled and their sessions closed (their ledgers say so)."""
    server.server_close()
    for run in server.registry.cancel_all():
        run.wait()
