package testpeers

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
)

// PostgresServer is the PostgreSQL server tests use: the URL in
// MCPCOST_TEST_PG, else one answering on 127.0.0.1:5432 as the user
// postgres (scripts/test starts a private one when neither answers). It
// returns an error when no server answers.
func PostgresServer() (string, error) {
	u := os.Getenv("MCPCOST_TEST_PG")
	if u == "" {
		u = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable&connect_timeout=5"
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		return "", fmt.Errorf("no PostgreSQL server (MCPCOST_TEST_PG or 127.0.0.1:5432): %w", err)
	}
	return u, nil
}

// PostgresDatabase creates a database of a random name on server, so that
// tests and runs in parallel never share one, and returns its URL and a
// function that drops it.
func PostgresDatabase(server string) (dbURL string, drop func() error, err error) {
	var b [8]byte
	rand.Read(b[:])
	name := "mcpcost_test_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return "", nil, err
	}
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		admin.Close()
		return "", nil, err
	}
	drop = func() error {
		defer admin.Close()
		_, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		return err
	}
	u, err := url.Parse(server)
	if err != nil {
		drop()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}
