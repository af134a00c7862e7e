def f(x):
    return  h( x )
