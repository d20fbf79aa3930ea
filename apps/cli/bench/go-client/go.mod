module mcpdbbench/goclient

go 1.22
