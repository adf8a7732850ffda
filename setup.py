"""Only what pyproject.toml cannot say: which packages, and where rails/ and assets/ go in the wheel.

The repository keeps the NeMo Guardrails configuration (rails/) and the static files (assets/) at the top
level, where operators look for them. The wheel carries them inside the package, as webapp/rails and
webapp/assets, so a normal install has its rails; `webapp.resources.resource_dir` finds either layout.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["webapp", "webapp.*"]), "webapp.rails", "webapp.assets"],
    package_dir={"webapp.rails": "rails", "webapp.assets": "assets"},
    package_data={
        "webapp.rails": ["*.yml", "*.yaml", "*.co", "*.txt", ".railsignore"],
        "webapp.assets": ["*.css", "*.json", "*.png", "*.svg", "*.ico"],
        "webapp.store": ["migrations/script.py.mako"],
    },
    exclude_package_data={"": ["__pycache__/*"]},
)
