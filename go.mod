module github.com/sluicephysics/sluice

go 1.26.8

require (
	github.com/go-gl/mathgl v1.2.0 // indirect
	github.com/mlange-42/arche v0.15.3 // indirect
)
