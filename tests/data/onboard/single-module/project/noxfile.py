import setuptools
