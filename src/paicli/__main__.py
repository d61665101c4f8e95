from paicli.cli.app import run

run()
