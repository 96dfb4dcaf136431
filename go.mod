module github.com/sluicephysics/sluice

go 1.22.0

require (
	github.com/g3n/engine v0.2.1-0.20220618150654-b5c63e94be77
	github.com/go-gl/mathgl v1.2.0
	github.com/mlange-42/arche v0.15.3
)

require (
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20210410170116-ea3d685f79fb // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	golang.org/x/image v0.0.0-20210607152325-775e3b0c77b9 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)
