fixtures: build
	@echo "fixtures: generator not yet wired"
