from paicli.cli.app import main

raise SystemExit(main())
