package db

import (
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "go.etcd.io/etcd/client/v3"
	_ "modernc.org/sqlite"
)
